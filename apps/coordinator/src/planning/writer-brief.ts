import { adviseAnswer } from '@orrery/language';
import type { Plan, Run, WriterBrief } from '@orrery/protocol';
import type { KeptReport } from '../ledger/ledger.store';

/**
 * What the lead writes from besides the findings: its plan's class, reasoning and objectives, the form and language it
 * chose (the rules' reading where its plan named none), and the researchers' reports. Bounded as the task schema is.
 */
export function writerBrief(run: Pick<Run, 'topic'>, plan: Plan, reports: readonly KeptReport[]): WriterBrief {
  const advice = adviseAnswer(run.topic);
  const language = plan.language ?? (advice.language === 'und' ? 'en' : advice.language);
  return {
    classification: plan.classification,
    answerForm: plan.answerForm ?? (plan.classification === 'straightforward' ? 'direct-answer' : advice.form),
    language,
    rationale: plan.rationale ?? '',
    objectives: plan.subtopics.slice(0, 60).map((s) => ({ subtopicId: s.id, title: s.title.slice(0, 300), objective: (s.brief?.objective ?? s.query).slice(0, 1000) })),
    reports: reports.slice(0, 200).map((r) => ({ taskId: r.taskId, ...(r.subtopicId ? { subtopicId: r.subtopicId } : {}), report: r.report })),
  };
}
