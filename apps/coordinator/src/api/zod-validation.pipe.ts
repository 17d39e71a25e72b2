import { zodIssues } from '@orrery/protocol';
import { BadRequestException, type PipeTransform } from '@nestjs/common';
import type { ZodType } from 'zod';

/** REST input is parsed by the protocol's zod schema; the 400 names every problem. */
export class ZodValidationPipe<T> implements PipeTransform<unknown, T> {
  constructor(private readonly schema: ZodType<T>) {}
  transform(value: unknown): T {
    const parsed = this.schema.safeParse(value ?? {});
    if (parsed.success) return parsed.data;
    const problems = zodIssues(parsed.error);
    throw new BadRequestException({ statusCode: 400, error: 'Bad Request', message: problems.join('; '), issues: problems });
  }
}
