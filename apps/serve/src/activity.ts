import { ACTIVITY_LOG_ENTRIES, type ActivityEntry } from '@paneflow/protocol';

/**
 * The bounded activity log of REFERENCE.md §3.4: every outcome change of every session, the
 * latest 256 for the whole home, in memory (a restarted serve starts an empty one, as it
 * raises no notice for what happened while it was away). `fleet.activity` reads it.
 */
export class ActivityLog {
  private readonly entries: ActivityEntry[] = [];

  append(entry: ActivityEntry): void {
    this.entries.push(entry);
    if (this.entries.length > ACTIVITY_LOG_ENTRIES) this.entries.splice(0, this.entries.length - ACTIVITY_LOG_ENTRIES);
  }

  /** The latest `limit` entries (of one pane, if given), oldest first. */
  latest(surfaceId: number | undefined, limit: number = ACTIVITY_LOG_ENTRIES): ActivityEntry[] {
    const of = surfaceId === undefined ? this.entries : this.entries.filter((e) => e.surface_id === surfaceId);
    return of.slice(-limit);
  }
}
