/** How a run's or a task's ending should look: good (complete, landed), warn (blocked, needs review), bad (failed, refused), muted (cancelled, skipped), live (going on). */
export type RunTone = 'good' | 'warn' | 'bad' | 'muted' | 'live';
