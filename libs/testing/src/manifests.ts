import type { Manifest } from '@paneflow/protocol';
import { HOST_PROTOCOL_VERSION } from '@paneflow/protocol';

/**
 * A host manifest for a test that builds one by hand (a plan from it, a fake host's session): a
 * live login shell that declared nothing, with `fields` over it. Every field the schema has is
 * here once, so a new field is added in one place.
 */
export function manifestOf(fields: Partial<Manifest> & Pick<Manifest, 'session' | 'instance' | 'workspace_id' | 'surface_id' | 'cwd'>): Manifest {
  return {
    generation: 1,
    name: null,
    launch: { shell: '/bin/sh', args: ['-l'], env: {}, cols: 80, rows: 24 },
    lifecycle: 'live',
    exit_code: null,
    exit_signal: null,
    process: null,
    title: '',
    records: [],
    declared_status: null,
    program_status_capable_at_ms: null,
    last_status_signal_at_ms: null,
    runtime: { current_observation: null, last_runtime_id: null },
    output_generation: 0,
    screen_changed_at_ms: null,
    final_output: null,
    host_protocol_version: HOST_PROTOCOL_VERSION,
    host_build_id: 'test',
    created_at_ms: 1,
    updated_at_ms: 1,
    ...fields,
  };
}
