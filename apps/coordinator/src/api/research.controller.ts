import { Body, Controller, Get, Headers, HttpCode, NotFoundException, Param, ParseUUIDPipe, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type HumanDecision, HumanDecisionSchema, type Report, type ResearchRequest, ResearchRequestSchema, TERMINAL_RUN_STATUSES } from '@orrery/protocol';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { DecisionLogService } from '../events/decision-log.service';
import { RunEventsService } from '../events/run-events.service';
import { reportToMarkdown } from '../report/report-markdown';
import { RunsService } from '../runs/runs.service';
import { ZodValidationPipe } from './zod-validation.pipe';

const uuid = new ParseUUIDPipe({ version: '4', exceptionFactory: () => new NotFoundException('run not found') });

@ApiTags('research')
@Controller('v1/research')
export class ResearchController {
  constructor(
    private readonly runs: RunsService,
    private readonly events: RunEventsService,
    private readonly decisions: DecisionLogService,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Start a research run' })
  @ApiBody({ schema: z.toJSONSchema(ResearchRequestSchema, { io: 'input' }) as object })
  async create(@Body(new ZodValidationPipe(ResearchRequestSchema)) body: ResearchRequest) {
    const run = await this.runs.create(body);
    const self = `/v1/research/${run.id}`;
    return { id: run.id, status: run.status, links: { self, report: `${self}/report`, events: `${self}/events`, cancel: `${self}/cancel` } };
  }

  @Get(':id')
  @ApiOperation({ summary: 'The run: status, plan, rounds, counters, errors' })
  get(@Param('id', uuid) id: string) {
    return this.runs.get(id);
  }

  @Get(':id/report')
  @ApiOperation({ summary: 'The report as JSON, or Markdown with ?format=markdown' })
  async report(@Param('id', uuid) id: string, @Query('format') format: string | undefined, @Res() res: Response) {
    const report: Report | undefined = await this.runs.report(id);
    if (!report) {
      const run = await this.runs.get(id);
      res.status(409).json({ statusCode: 409, message: `the report is not ready: run is ${run.status}`, status: run.status });
      return;
    }
    if (format === 'markdown' || format === 'md') res.type('text/markdown; charset=utf-8').send(reportToMarkdown(report));
    else res.json(report);
  }

  @Get(':id/decisions')
  @ApiOperation({ summary: 'Every decision the run took, in order' })
  async listDecisions(@Param('id', uuid) id: string) {
    await this.runs.get(id);
    return this.decisions.list(id);
  }

  @Post(':id/decision')
  @HttpCode(202)
  @ApiOperation({ summary: 'Answer a run in needs_review: continue (optionally with extra budget) or stop' })
  @ApiBody({ schema: z.toJSONSchema(HumanDecisionSchema, { io: 'input' }) as object })
  async decide(@Param('id', uuid) id: string, @Body(new ZodValidationPipe(HumanDecisionSchema)) body: HumanDecision) {
    const run = await this.runs.decide(id, body);
    return { id: run.id, status: run.status, budget: run.budget };
  }

  @Post(':id/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel the run' })
  async cancel(@Param('id', uuid) id: string) {
    const run = await this.runs.cancel(id);
    return { id: run.id, status: run.status };
  }

  @Get(':id/events')
  @ApiOperation({ summary: 'Server-sent events: replays from the start or Last-Event-ID, follows live, ends with the run' })
  async stream(@Param('id', uuid) id: string, @Headers('last-event-id') lastEventId: string | undefined, @Req() req: Request, @Res() res: Response) {
    await this.runs.get(id);
    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    const conn = this.events.blockingConnection();
    let open = true;
    req.on('close', () => {
      open = false;
      conn.disconnect();
    });
    let after = lastEventId && /^\d+-\d+$/.test(lastEventId) ? lastEventId : '0';
    try {
      let ended = false;
      for (const e of await this.events.readAll(id)) {
        if (after !== '0' && compareIds(e.id, after) <= 0) continue;
        res.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
        after = e.id;
        if (e.type === 'run.finished') ended = true;
      }
      while (open && !ended) {
        const batch = await this.events.follow(conn, id, after === '0' ? '0-0' : after, 5000);
        if (!batch.length) {
          res.write(': keep-alive\n\n');
          const run = await this.runs.get(id).catch(() => undefined);
          if (!run || (TERMINAL_RUN_STATUSES.includes(run.status) && !(await this.events.read(id, after, 1)).length)) ended = true;
          continue;
        }
        for (const e of batch) {
          res.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
          after = e.id;
          if (e.type === 'run.finished') ended = true;
        }
      }
    } catch (err) {
      if (open) res.write(`event: error\ndata: ${JSON.stringify({ message: (err as Error).message })}\n\n`);
    } finally {
      conn.disconnect();
      res.end();
    }
  }
}

function compareIds(a: string, b: string): number {
  const [a1, a2] = a.split('-').map(Number) as [number, number];
  const [b1, b2] = b.split('-').map(Number) as [number, number];
  return a1 !== b1 ? a1 - b1 : a2 - b2;
}
