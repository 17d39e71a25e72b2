import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EngineFactory } from '@orrery/engines';
import { type CorpusIngestRequest, CorpusIngestRequestSchema, type CorpusList, CorpusNameSchema } from '@orrery/protocol';
import { z } from 'zod';
import { AdminGuard } from '../auth/admin.guard';
import { CorpusIngest } from '../corpora/corpus-ingest.service';
import { ZodValidationPipe } from './zod-validation.pipe';

@ApiTags('research')
@Controller('v1/corpora')
export class CorporaController {
  constructor(
    private readonly engines: EngineFactory,
    private readonly ingest: CorpusIngest,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The corpus names a request may use (configured, or ingested into the passage store), and the one used when it names none' })
  async list(): Promise<CorpusList> {
    return { default: this.engines.config.DEFAULT_CORPUS, corpora: await this.engines.researchableCorpora() };
  }

  @Post()
  @HttpCode(202)
  @UseGuards(AdminGuard)
  @ApiOperation({ summary: 'Admin keys only: (re)ingest a corpus into the passage store through the ingest queue; 409 while it is ingesting already' })
  @ApiBody({ schema: z.toJSONSchema(CorpusIngestRequestSchema, { io: 'input' }) as object })
  async create(@Body(new ZodValidationPipe(CorpusIngestRequestSchema)) body: CorpusIngestRequest) {
    const ingest = await this.ingest.start(body.name, body.path);
    return { ...ingest, links: { self: `/v1/corpora/${body.name}` } };
  }

  @Get(':name')
  @ApiOperation({ summary: 'The corpus’s last ingest: status, passages, chunks done' })
  async progress(@Param('name', new ZodValidationPipe(CorpusNameSchema)) name: string) {
    const p = await this.ingest.progress(name);
    if (!p) throw new NotFoundException(`corpus ${name} was never ingested`);
    return p;
  }

  @Delete(':name')
  @HttpCode(204)
  @UseGuards(AdminGuard)
  @ApiOperation({ summary: 'Admin keys only: delete an ingested corpus (its passages and its ingest record); 404 when there is none, 409 while it ingests or for a configured one' })
  async remove(@Param('name', new ZodValidationPipe(CorpusNameSchema)) name: string): Promise<void> {
    await this.ingest.remove(name);
  }
}
