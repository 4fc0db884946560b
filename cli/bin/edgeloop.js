#!/usr/bin/env node
// The CLI is TypeScript; tsx compiles it on load so it needs only Node 20, no build step.
import { register } from "tsx/esm/api";

register();
await import("../main.ts");
