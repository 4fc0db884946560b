/**
 * Remote MCP servers' OAuth secrets (tokens, a registered client's secret, the PKCE verifier) are
 * kept sealed: AES-256-GCM under a key derived (HKDF-SHA-256) from the `MCP_OAUTH_SECRET` setting,
 * with the server's name as additional data, so a sealed value read back under another server's
 * name, or changed in storage, does not open. WebCrypto only: the same code runs in workerd and in
 * the unit tests.
 */
const VERSION = "v1";
const INFO = new TextEncoder().encode("edgeloop mcp oauth tokens v1");

export class SealingKey {
  private constructor(private readonly key: CryptoKey) {}

  static async fromSecret(secret: string): Promise<SealingKey> {
    const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, [
      "deriveKey",
    ]);
    const key = await crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: INFO },
      material,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
    return new SealingKey(key);
  }

  async seal(plaintext: string, context: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
      this.key,
      new TextEncoder().encode(plaintext),
    );
    return `${VERSION}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
  }

  /** The plaintext, or null when the value was sealed under another key or context, or altered. */
  async open(value: string, context: string): Promise<string | null> {
    const [version, iv, data] = value.split(".");
    if (version !== VERSION || !iv || !data) return null;
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: fromBase64Url(iv), additionalData: new TextEncoder().encode(context) },
        this.key,
        fromBase64Url(data),
      );
      return new TextDecoder().decode(plain);
    } catch {
      return null;
    }
  }
}

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
