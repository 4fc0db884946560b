#!/usr/bin/env node
// The bridge is TypeScript; tsx compiles it on load so it needs only Node 20, no build step.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
