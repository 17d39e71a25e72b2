import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { EngineFactory } from '@orrery/engines';
import type { CorpusList } from '@orrery/protocol';

@ApiTags('research')
@Controller('v1/corpora')
export class CorporaController {
  constructor(private readonly engines: EngineFactory) {}

  @Get()
  @ApiOperation({ summary: 'The corpus names a request may use, and the one used when it names none' })
  list(): CorpusList {
    return { default: this.engines.config.DEFAULT_CORPUS, corpora: this.engines.corpusNames() };
  }
}
