import { Body, Controller, Get, HttpCode, Logger, Post, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type JudgeSwitchState, JudgeSwitchRequestSchema } from '@orrery/protocol';
import { z } from 'zod';
import { AdminGuard } from '../auth/admin.guard';
import type { Principal } from '../auth/principal';
import { Caller } from '../auth/request-principal';
import { DeploymentJudgeSwitch } from '../judge/deployment-judge-switch';
import { ZodValidationPipe } from './zod-validation.pipe';

/** The judge's kill switch at run time: off stops every model judgement at once, running runs and tasks included. */
@ApiTags('admin')
@Controller('v1/admin/judge')
@UseGuards(AdminGuard)
export class AdminJudgeController {
  private readonly logger = new Logger('JudgeSwitch');
  constructor(private readonly judgeSwitch: DeploymentJudgeSwitch) {}

  @Get()
  @ApiOperation({ summary: 'Whether model judging is on for the deployment' })
  state(): Promise<JudgeSwitchState> {
    return this.judgeSwitch.state();
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Turn model judging on or off for the whole deployment, at once' })
  @ApiBody({ schema: z.toJSONSchema(JudgeSwitchRequestSchema) as object })
  async set(@Caller() caller: Principal, @Body(new ZodValidationPipe(JudgeSwitchRequestSchema)) body: { enabled: boolean }): Promise<JudgeSwitchState> {
    const state = await this.judgeSwitch.set(body.enabled, caller.id);
    this.logger.log(`model judging ${state.enabled ? 'on' : 'off'} (by ${caller.id})`);
    return state;
  }
}
