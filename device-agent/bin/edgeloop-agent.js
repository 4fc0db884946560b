#!/usr/bin/env node
// The agent is TypeScript; tsx compiles it on load so a device needs only Node 20, no build step.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
