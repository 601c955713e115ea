/**
 * The round report rules, written from the seeds without the package's schema: every report has exactly the five
 * fields status, summary, evidence, nextSteps and blocker; status is continue, complete or blocked; the summary is
 * not blank; evidence and next steps are lists of non-blank strings; blocker is a string or null. A continue report
 * lists next steps and carries no blocker; a complete report carries evidence, no next steps and no blocker; a
 * blocked report carries a concrete (non-blank) blocker. Blank means empty or white space only.
 */
export function satisfiesReportRules(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const fields = Object.keys(raw).sort();
  if (fields.join(',') !== 'blocker,evidence,nextSteps,status,summary') return false;
  const { status, summary, evidence, nextSteps, blocker } = raw as Record<string, unknown>;
  if (!isNonBlankString(summary) || !isListOfNonBlankStrings(evidence) || !isListOfNonBlankStrings(nextSteps))
    return false;
  if (blocker !== null && typeof blocker !== 'string') return false;
  switch (status) {
    case 'continue':
      return nextSteps.length > 0 && blocker === null;
    case 'complete':
      return evidence.length > 0 && nextSteps.length === 0 && blocker === null;
    case 'blocked':
      return isNonBlankString(blocker);
    default:
      return false;
  }
}

function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function isListOfNonBlankStrings(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  // Indexed, not `every`: a hole in a sparse list is a missing entry, not a skipped one.
  for (let i = 0; i < value.length; i += 1) if (!isNonBlankString(value[i])) return false;
  return true;
}
