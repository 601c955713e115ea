/** The default output path: `run.jsonl` → `run.html`, anything else gets `.html` appended. */
export function defaultReportPath(recording: string): string {
  return recording.endsWith('.jsonl') ? `${recording.slice(0, -'.jsonl'.length)}.html` : `${recording}.html`;
}
