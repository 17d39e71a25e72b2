import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type WatchRequest, WatchRequestSchema } from '@orrery/protocol';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { Caller } from '../auth/request-principal';
import { ZodValidationPipe } from '../api/zod-validation.pipe';
import { WatchesService } from './watches.service';

const uuid = new ParseUUIDPipe({ version: '4', exceptionFactory: () => new NotFoundException('watch not found') });

@ApiTags('watches')
@Controller('v1/watches')
export class WatchesController {
  constructor(private readonly watches: WatchesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Ask a question again on a schedule (every ≥ WATCH_MIN_EVERY_SECONDS): each run is compared with the last; watch.changed is POSTed only when something changed' })
  @ApiBody({ schema: z.toJSONSchema(WatchRequestSchema, { io: 'input' }) as object })
  create(@Caller() caller: Principal, @Body(new ZodValidationPipe(WatchRequestSchema)) body: WatchRequest) {
    return this.watches.create(caller, body);
  }

  @Get()
  @ApiOperation({ summary: "The caller's watches, with their runs and what changed in each" })
  async list(@Caller() caller: Principal) {
    return { watches: await this.watches.list(caller) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One watch, with its runs and what changed in each' })
  get(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    return this.watches.get(caller, id);
  }

  @Post(':id/pause')
  @ApiOperation({ summary: 'Stop asking until resumed (its scheduler is removed)' })
  pause(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    return this.watches.pause(caller, id);
  }

  @Post(':id/resume')
  @ApiOperation({ summary: 'Ask again now, then on the schedule' })
  resume(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    return this.watches.resume(caller, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete the watch and its scheduler (its runs stay)' })
  async remove(@Caller() caller: Principal, @Param('id', uuid) id: string): Promise<void> {
    await this.watches.remove(caller, id);
  }
}
