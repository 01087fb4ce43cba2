import { Controller, Inject, Param, Post, Req } from '@nestjs/common';
import type { Tidings } from '@tidings/core';
import { TIDINGS } from '@tidings/nestjs';
import type { Request } from 'express';

@Controller()
export class AppController {
  constructor(@Inject(TIDINGS) private readonly tidings: Tidings) {}

  // The signed-in user's connect token (the app's own session check decides who that is).
  @Post('token/:user')
  token(@Param('user') user: string, @Req() request: Request) {
    const baseUrl = `${request.protocol}://${request.get('host')}/notify`;
    return this.tidings.createConnectToken({ recipient: user, baseUrl });
  }

  // A send in process: the controller is the app's own code, no API key involved.
  @Post('hello/:user')
  async hello(@Param('user') user: string) {
    const { notification } = await this.tidings.notifications.send({ recipient: user, title: 'Hello' });
    return { id: notification.id };
  }
}
