import type { IncomingMessage, ServerResponse } from "node:http";
import { readJson, sendJson } from "./http-io.js";
import { ScopeBody, ScopeName, scopeConflict } from "./scopes.js";
import type { ServerState } from "./server-state.js";

/**
 * The scopes' routes (scopes.ts), beside the server's own `/__script`, `/__requests`, `/__reset`:
 *
 *   PUT    /__scopes/{name}           {rules}  set the scope's script (400 bad, 409 overlapping another scope's)
 *   GET    /__scopes/{name}/requests           the model requests this scope answered, in order
 *   POST   /__scopes/{name}/reset              forget its requests and failure counters (script stays)
 *   DELETE /__scopes/{name}                    remove it
 *
 * Returns false for a path that is not a scope's.
 */
export async function handleScopeRoute(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  const m = /^\/__scopes\/([^/]+)(\/requests|\/reset)?$/.exec(path);
  if (!m) return false;
  const name = ScopeName.safeParse(decodeURIComponent(m[1]!));
  if (!name.success) {
    sendJson(res, 400, { error: `bad scope name: ${name.error.issues[0]?.message}` });
    return true;
  }
  const scope = state.scopes.get(name.data);
  const route = `${req.method} ${m[2] ?? ""}`;
  if (route === "PUT ") {
    const body = await readJson(req);
    const parsed = body.ok ? ScopeBody.safeParse(body.value) : null;
    if (!parsed?.success) {
      const why = !body.ok
        ? body.error
        : parsed!.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      sendJson(res, 400, { error: `bad script: ${why}` });
      return true;
    }
    const conflict = scopeConflict(state.scopes, name.data, parsed.data.rules);
    if (conflict) {
      sendJson(res, 409, { error: `scope ${name.data}: ${conflict}` });
      return true;
    }
    state.scopes.set(name.data, { requests: scope?.requests ?? [], failures: new Map(), rules: parsed.data.rules });
    sendJson(res, 200, { ok: true, rules: parsed.data.rules.length });
    return true;
  }
  if (!scope) {
    sendJson(res, 404, { error: `no scope ${name.data}` });
    return true;
  }
  switch (route) {
    case "GET /requests":
      sendJson(res, 200, scope.requests);
      return true;
    case "POST /reset":
      scope.requests = [];
      scope.failures.clear();
      sendJson(res, 200, { ok: true });
      return true;
    case "DELETE ":
      state.scopes.delete(name.data);
      sendJson(res, 200, { ok: true });
      return true;
    default:
      sendJson(res, 405, { error: `no route for ${req.method} ${path}` });
      return true;
  }
}
