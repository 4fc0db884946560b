import type { KeyScope } from "@edgeloop/protocol/api-keys";
import { z } from "zod";

/** What the route catalogue (route-catalogue.ts) says of each route, and shorthands for saying it. */

/**
 * Who may call a route. `api`: the API token, the admin token, or a scoped key with `scope`;
 * `admin`: the admin token (or the dashboard's session); `message`: as `api` with `messages`, or a
 * signed webhook (MESSAGE_AUTH); `device`: a device token.
 */
export type RouteAuth =
  | { kind: "public" }
  | { kind: "api"; scope: KeyScope }
  | { kind: "admin" }
  | { kind: "device" }
  | { kind: "message" };

export type RouteResponse = {
  description: string;
  /** a JSON body's schema; absent for bodies that are not JSON (see `mediaType`) or empty */
  schema?: z.ZodType;
  /** the body's media type when it is not JSON */
  mediaType?: string;
  /** an error the route answers in its own words (problem+json), listed apart from the generic default */
  problem?: true;
};

export type Route = {
  method: "GET" | "POST" | "DELETE";
  /** Hono's form: `/v1/conversations/:id` */
  path: string;
  summary: string;
  tag: string;
  auth: RouteAuth;
  /** a JSON request body */
  body?: z.ZodType;
  /** query parameters, one per property */
  query?: z.ZodObject;
  /** answers by status code: successes, and errors worth naming (`problem`); every other error is the default */
  responses: Record<number, RouteResponse>;
};

export const json = (description: string, schema?: z.ZodType): RouteResponse => ({ description, schema });
export const text = (description: string, mediaType: string): RouteResponse => ({ description, mediaType });
export const problem = (description: string): RouteResponse => ({ description, problem: true });
export const api = (scope: KeyScope): RouteAuth => ({ kind: "api", scope });
export const ADMIN: RouteAuth = { kind: "admin" };
export const PUBLIC: RouteAuth = { kind: "public" };

/** `{<id>, revoked, already_revoked}`: the answer of a DELETE that revokes. */
export const revoked = (idField: string): RouteResponse =>
  json("revoked", z.looseObject({ [idField]: z.string(), revoked: z.boolean(), already_revoked: z.boolean() }));
