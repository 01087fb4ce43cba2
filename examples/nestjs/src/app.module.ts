import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { createTidings } from '@tidings/core';
import { TidingsModule } from '@tidings/nestjs';
import { createSqliteStore } from '@tidings/store-sqlite';
import { AppController } from './app.controller.js';

const store = createSqliteStore({ path: 'tidings.db' });

@Module({
  imports: [
    // One project named by the app, no API key; Tidings answers /notify/v1/*.
    TidingsModule.forRoot({ tidings: createTidings({ store, project: 'my-app' }), basePath: '/notify' }),
  ],
  controllers: [AppController],
})
export class AppModule implements OnApplicationShutdown {
  // After TidingsModule closed Tidings (which ended the open streams) and the server closed.
  onApplicationShutdown() {
    store.close();
  }
}
