import { describe, expect, it } from "vitest";
import {
  objectKind,
  perDeploymentClasses,
  perDeploymentKinds,
  singleNamedBindings,
} from "../../../bench/lib/object-kinds.js";

describe("per-deployment object kinds", () => {
  it("are the bindings addresses.ts reaches by a fixed name, not by a key", () => {
    const source = [
      'export const registryOf = (env) => stub<RegistryDO>(env.REGISTRY, "global");',
      "export const hubFor = (env, agentId) => stub<DeviceHubRpc>(env.DEVICE_HUB, agentId);",
      'export const deploymentOf = (env) => stub<DeploymentRpc>(env.DEPLOYMENT, "global");',
      // a template literal with a placeholder: named by key, so sharded
      `export const keysFor = (env, id) => stub<KeysDO>(env.KEYS, \`key-\${id}\`);`,
    ].join("\n");
    expect(singleNamedBindings(source)).toEqual(["REGISTRY", "DEPLOYMENT"]);
  });

  it("names classes of the product's own wrangler.toml, never the per-device hub or conversation", () => {
    const classes = perDeploymentClasses();
    expect(classes.length).toBeGreaterThan(0);
    expect(classes).not.toContain("DeviceHubDO");
    expect(classes).not.toContain("ConversationDO");
  });

  it("tell a class's per-deployment object from its objects named by a key (the registry's pools)", () => {
    const kinds = perDeploymentKinds();
    expect(kinds).toContain('RegistryDO "global"');
    expect(kinds).toContain('DeploymentDO "global"');
    expect(objectKind(kinds, "RegistryDO", "global")).toBe('RegistryDO "global"');
    expect(objectKind(kinds, "RegistryDO", "pool:kitchen")).toBe("RegistryDO");
    expect(objectKind(kinds, "DeviceHubDO", "global")).toBe("DeviceHubDO");
  });
});
