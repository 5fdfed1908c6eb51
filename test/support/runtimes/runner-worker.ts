/** The kit app (kit-app.ts) as a module Worker for workerd; its bindings, KIT_CONFIG among them, come with each request. */
import { createKitApp, type KitAppConfig } from './kit-app.js';

let app: ((request: Request) => Promise<Response>) | undefined;

export default {
  async fetch(request: Request, env: { KIT_CONFIG: string }): Promise<Response> {
    const config = JSON.parse(env.KIT_CONFIG) as KitAppConfig & { runtime: string };
    app ??= createKitApp(config, config.runtime).serve;
    const response = await app(request);
    // workerd, serving HTTP itself here (Cloudflare's edge stands in front of it in production), closes a
    // connection whose request body was left unread with those bytes still in the socket, which resets it: the
    // client may lose the answer. Read what the kit did not need (a 404, 405 or 415 answered before the body).
    if (request.body && !request.bodyUsed) await request.arrayBuffer().catch(() => undefined);
    return response;
  },
};
