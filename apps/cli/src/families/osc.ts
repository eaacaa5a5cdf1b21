// The OSC 7501 tools for scripts: emit a report, decode or strip a stream.
import type { ReportInput } from '@paneflow/osc7501';
import { decode, emit, strip } from '../osc';
import { flag, str, type Run } from './common';

export const run: Record<string, Run> = {
  async emit(p) {
    emit({
      state: str(p, 'state') as ReportInput['state'],
      kind: flag(p, 'kind') as ReportInput['kind'],
      msg: flag(p, 'msg'),
      app: flag(p, 'app'),
      id: flag(p, 'id'),
      progress: flag<number>(p, 'progress'),
      title: flag(p, 'title'),
    });
    return 0;
  },
  async decode() {
    await decode();
    return 0;
  },
  async strip() {
    await strip();
    return 0;
  },
};
