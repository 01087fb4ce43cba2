import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

const app = await NestFactory.create(AppModule);
// On SIGTERM: TidingsModule closes Tidings (the open streams end), then the server; exit 0.
app.enableShutdownHooks(['SIGTERM'], { useProcessExit: true });
await app.listen(Number(process.env.PORT ?? 3000));
