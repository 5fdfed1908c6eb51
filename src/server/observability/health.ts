/**
 * The readiness answer (`GET /health`, docs/observability.md), for a load balancer: whether this process can take
 * payments now — the service reachable from it, and the shared stores it was given (Redis) answering. 200 when both
 * hold, 503 when either does not, and a body that says which, in a few fixed words: no address, no merchant, no
 * version, nothing a stranger could use. Unauthenticated, as load balancers ask; the service is probed at most once
 * per `SERVICE_FRESH_MS`, so asking often costs the service nothing more.
 */
import { jsonAnswer, toResponse } from '../http/http.js';
import type { ServiceClient } from '../service/client.js';
import type { SharedStoreState } from '../stores/shared.js';

/** A call of the kit's own within this long says whether the service answers; past it, the service is probed. */
const SERVICE_FRESH_MS = 10_000;
/** The probe's patience: a load balancer's own check waits a few seconds at most. */
const PROBE_TIMEOUT_MS = 2_000;


function sharedState(store: unknown): SharedStoreState | undefined {
  const state = store as Partial<SharedStoreState> | undefined;
  return typeof state?.backend === 'string' && typeof state.available === 'boolean' ? (state as SharedStoreState) : undefined;
}

export function healthAnswer(client: ServiceClient, stores: readonly unknown[]): (method: string) => Promise<Response> {
  const shared = stores.map(sharedState).filter((state): state is SharedStoreState => state !== undefined);
  return async (method) => {
    const reachable = await client.reachable(SERVICE_FRESH_MS, PROBE_TIMEOUT_MS);
    const backends: Record<string, 'up' | 'down'> = {};
    for (const store of shared) if (backends[store.backend] !== 'down') backends[store.backend] = store.available ? 'up' : 'down';
    const ready = reachable && Object.values(backends).every((state) => state === 'up');
    // Replicas not acknowledging leave the process ready (payments are taken, payers see them; callbacks wait, answered
    // 503): the answer says so for monitoring, and a balancer does not take every process out at once.
    const replicas = shared.find((store) => store.replicas !== undefined)?.replicas;
    // `redis` (a shared backend's name) only when the kit's stores are shared there.
    const body = { status: ready ? 'ready' : 'not-ready', service: reachable ? 'reachable' : 'unreachable', ...backends, ...(replicas ? { replicas } : {}) };
    const answer = jsonAnswer(ready ? 200 : 503, body);
    return toResponse(method === 'HEAD' ? { ...answer, body: '' } : answer);
  };
}
