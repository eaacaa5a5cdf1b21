// How a face asks a host to follow a session's output (askFollowing): with its own gather, and
// without it from a host started before streams took one, which refuses the field as any host
// refuses a field it does not know (libs/rpc's server: -32602, the field named in `data`).
import { ErrorCode, RpcError } from '@paneflow/protocol';
import { askFollowing } from '../src/terminals';

const session = '00000000-0000-4000-8000-000000000001';

/** A host that knows the fields in `known`: what it was asked, and its answer or refusal. */
function host(known: string[]) {
  const asked: Array<Record<string, unknown>> = [];
  const ask = async (params: Record<string, unknown>) => {
    asked.push(params);
    const unknown = Object.keys(params).find((field) => !known.includes(field));
    if (unknown) throw new RpcError(ErrorCode.InvalidParams, `invalid params: unknown field '${unknown}'`, { reason: 'invalid_params', field: unknown });
    return { chunks: [], end_offset: params.offset, following: true };
  };
  return { asked, ask };
}

const fields = ['session', 'offset', 'follow', 'keepalive'];

test('a face asks its own gather, and a host that knows it is asked once', async () => {
  const current = host([...fields, 'gather_ms']);
  await expect(askFollowing(current.ask, session, 7, 33)).resolves.toMatchObject({ following: true });
  expect(current.asked).toEqual([{ session, offset: 7, follow: true, keepalive: false, gather_ms: 33 }]);
});

test('a host from before gather_ms refuses it and is asked again without it; other refusals stand', async () => {
  const old = host(fields);
  await expect(askFollowing(old.ask, session, 7, 33)).resolves.toMatchObject({ following: true });
  expect(old.asked).toEqual([
    { session, offset: 7, follow: true, keepalive: false, gather_ms: 33 },
    { session, offset: 7, follow: true, keepalive: false },
  ]);
  const refusing = async () => {
    throw new RpcError(ErrorCode.InvalidParams, 'offset 9 is past the end of the output (7)', { reason: 'offset_ahead', field: 'offset' });
  };
  await expect(askFollowing(refusing, session, 9, 33)).rejects.toMatchObject({ data: { reason: 'offset_ahead' } });
});

test('without a gather of its own the face asks without the field', async () => {
  const old = host(fields);
  await askFollowing(old.ask, session, 0, undefined);
  expect(old.asked).toEqual([{ session, offset: 0, follow: true, keepalive: false }]);
});
