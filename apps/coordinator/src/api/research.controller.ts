import { Body, Controller, Get, Headers, HttpCode, Logger, NotFoundException, Param, ParseUUIDPipe, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type FollowupRequest, FollowupRequestSchema, type HumanDecision, HumanDecisionSchema, type Report, type ResearchRequest, ResearchRequestSchema, RunStatusSchema, type StoredRunEvent } from '@orrery/protocol';
import { billOf, sumBills } from '@orrery/engine';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { Caller } from '../auth/request-principal';
import { type RunStream, RunStreamsService } from '../runs/run-streams.service';
import { EXPORT_FORMATS, type ExportFormat, ReportQuerySchema } from '../export/export-formats';
import { renderExport } from '../export/render-export';
import { REPORT_HTML_CSP } from '../export/report-html';
import { RunsService } from '../runs/runs.service';
import { RunWaitingService } from '../breaker/run-waiting.service';
import { ZodValidationPipe } from './zod-validation.pipe';

const uuid = new ParseUUIDPipe({ version: '4', exceptionFactory: () => new NotFoundException('run not found') });
const ListQuerySchema = z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(50), before: z.iso.datetime().optional(), status: RunStatusSchema.optional() });
/** A client this far behind is dropped; it reconnects with Last-Event-ID and loses nothing. */
const MAX_BUFFERED_BYTES = 1 << 20;

const frame = (e: StoredRunEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

@ApiTags('research')
@Controller('v1/research')
export class ResearchController {
  private readonly logger = new Logger('SSE');
  constructor(
    private readonly runs: RunsService,
    private readonly streams: RunStreamsService,
    private readonly waiting: RunWaitingService,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Start a research run' })
  @ApiBody({ schema: z.toJSONSchema(ResearchRequestSchema, { io: 'input' }) as object })
  async create(@Caller() caller: Principal, @Body(new ZodValidationPipe(ResearchRequestSchema)) body: ResearchRequest) {
    const run = await this.runs.create(caller, body);
    const self = `/v1/research/${run.id}`;
    return { id: run.id, status: run.status, links: { self, report: `${self}/report`, events: `${self}/events`, cancel: `${self}/cancel` } };
  }

  @Post(':id/followups')
  @HttpCode(202)
  @ApiOperation({ summary: 'Ask a follow-up question on a finished run you own: a new run that starts from its sources and findings (parentId links back)' })
  @ApiBody({ schema: z.toJSONSchema(FollowupRequestSchema, { io: 'input' }) as object })
  async followUp(@Caller() caller: Principal, @Param('id', uuid) id: string, @Body(new ZodValidationPipe(FollowupRequestSchema)) body: FollowupRequest) {
    const run = await this.runs.followUp(caller, id, body);
    const self = `/v1/research/${run.id}`;
    return { id: run.id, parentId: id, status: run.status, links: { self, report: `${self}/report`, events: `${self}/events`, parent: `/v1/research/${id}` } };
  }

  @Get()
  @ApiOperation({ summary: 'The caller’s runs, newest first (an admin key: every run); ?limit=1..200, ?before=<createdAt> pages back, ?status= one status' })
  async list(@Caller() caller: Principal, @Query(new ZodValidationPipe(ListQuerySchema)) query: z.infer<typeof ListQuerySchema>) {
    const runs = await this.runs.list(caller, query);
    // The listed runs' bills summed: what this page of runs cost, phase by phase and model by model.
    return { runs, bill: sumBills(runs.map((r) => billOf(r.usage))) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'The run: status, plan, rounds, counters, errors, and `waiting` (reason, since) while it waits on the model provider' })
  async get(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    const run = await this.runs.get(caller, id);
    return { ...(await this.waiting.view(run)), bill: billOf(run.usage) };
  }

  @Get(':id/report')
  @ApiOperation({ summary: 'The report as JSON, or with ?format= markdown, html (self-contained), docx or pdf' })
  async report(@Caller() caller: Principal, @Param('id', uuid) id: string, @Query(new ZodValidationPipe(ReportQuerySchema)) { format }: { format: ExportFormat }, @Res() res: Response) {
    const report: Report | undefined = await this.runs.report(caller, id);
    if (!report) {
      const run = await this.runs.get(caller, id);
      res.status(409).json({ statusCode: 409, message: `the report is not ready: run is ${run.status}`, status: run.status });
      return;
    }
    const type = EXPORT_FORMATS[format];
    if (format === 'json') return void res.json(report);
    // The page runs nothing and loads nothing: its own header says so, whatever the service's default headers.
    if (format === 'html') res.setHeader('content-security-policy', REPORT_HTML_CSP);
    if (format === 'docx' || format === 'pdf') res.attachment(`orrery-${id}.${type.extension}`);
    res.type(type.contentType).send(await renderExport(report, format));
  }

  @Get(':id/coverage')
  @ApiOperation({ summary: 'Evidence per subtopic so far (covered / thin / missing) and the coverage the last round measured' })
  coverage(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    return this.runs.coverage(caller, id);
  }

  @Get(':id/sources/:sourceId')
  @ApiOperation({ summary: 'A source the run retrieved, with the text its citations were checked against' })
  source(@Caller() caller: Principal, @Param('id', uuid) id: string, @Param('sourceId') sourceId: string) {
    return this.runs.source(caller, id, sourceId);
  }

  @Get(':id/decisions')
  @ApiOperation({ summary: 'Every decision the run took, in order' })
  listDecisions(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    return this.runs.decisions(caller, id);
  }

  @Get(':id/webhooks')
  @ApiOperation({ summary: 'The run’s webhook URL and its delivery log: every attempt, its HTTP status or error, and whether it is retried' })
  webhooks(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    return this.runs.webhooks(caller, id);
  }

  @Post(':id/decision')
  @HttpCode(202)
  @ApiOperation({ summary: 'Answer a run in needs_review: continue (optionally with extra budget: a key without admin rights up to the server’s default budget and its daily quotas, 403 beyond, naming the most it may add) or stop; for a plan review, continue with an edited plan, or revise: {"action": "revise", "feedback": "…"} answers 200 with the revised plan, which waits again; 409 once answered' })
  @ApiBody({ schema: z.toJSONSchema(HumanDecisionSchema, { io: 'input' }) as object })
  async decide(@Caller() caller: Principal, @Param('id', uuid) id: string, @Body(new ZodValidationPipe(HumanDecisionSchema)) body: HumanDecision, @Res({ passthrough: true }) res: Response) {
    const run = await this.runs.decide(caller, id, body);
    // A revision is answered at once, with the plan that now waits for approval.
    if (body.action === 'revise') {
      res.status(200);
      return { id: run.id, status: run.status, budget: run.budget, proposedPlan: run.proposedPlan, revision: run.planRevisions?.at(-1), autoApproveAt: run.autoApproveAt ?? null };
    }
    return { id: run.id, status: run.status, budget: run.budget };
  }

  @Post(':id/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel the run, in any state' })
  async cancel(@Caller() caller: Principal, @Param('id', uuid) id: string) {
    const run = await this.runs.cancel(caller, id);
    return { id: run.id, status: run.status };
  }

  @Get(':id/events')
  @ApiOperation({ summary: 'Server-sent events: replays from the start or Last-Event-ID, follows live, ends with the run' })
  async stream(@Caller() caller: Principal, @Param('id', uuid) id: string, @Headers('last-event-id') lastEventId: string | undefined, @Req() req: Request, @Res() res: Response) {
    // Before anything is awaited: a client gone while this request waits must not leave a stream behind.
    let gone = res.destroyed || req.socket.destroyed;
    let stream: RunStream | undefined;
    res.on('close', () => {
      gone = true;
      stream?.close();
    });
    const opened = await this.streams.open(caller, id, lastEventId);
    stream = opened;
    if (gone) return opened.close();
    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    try {
      for await (const item of opened) {
        if (gone) break;
        res.write(item.kind === 'event' ? frame(item.event) : ': keep-alive\n\n');
        if (res.writableLength > MAX_BUFFERED_BYTES) break;
      }
    } catch (err) {
      this.logger.warn(`run ${id}: event stream failed: ${(err as Error).message}`);
      if (!gone) res.write(`event: error\ndata: ${JSON.stringify({ message: 'the event stream failed; reconnect with Last-Event-ID to resume' })}\n\n`);
    } finally {
      opened.close();
      res.end();
    }
  }
}
