// Where the pane keeps the connection: the add-in's own storage, never the workbook, a URL or a log.
//   - OfficeRuntime.storage (shared runtime) where it exists: per domain, unencrypted, readable by every
//     part of the add-in (Microsoft's docs);
//   - otherwise localStorage (partitioned per origin: the add-in's own origin).
// Neither is out of reach of script running in the pane; docs/UI.md ("The API key and an XSS in the
// pane") says what such script could reach and what keeps it out.
// Everything is stored under keys starting with "cellbound." so Sign out can remove every one of them.
// What is stored is validated when read back: a corrupted entry is dropped, not trusted.

export interface KeyValueStore {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

export const KEY_PREFIX = "cellbound.";
const CONNECTION_KEY = `${KEY_PREFIX}connection`;

/** What Connect remembers. credential is the API key or OAuth access token. */
export interface StoredConnection {
  baseUrl: string;
  dataUrl: string | null;
  credential: string;
  deploymentId: number | null;
}

interface OfficeRuntimeStorageLike {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  getKeys(): Promise<string[]>;
}

export function officeRuntimeStore(storage: OfficeRuntimeStorageLike): KeyValueStore {
  return {
    getItem: (k) => storage.getItem(k),
    setItem: (k, v) => storage.setItem(k, v),
    removeItem: (k) => storage.removeItem(k),
    keys: () => storage.getKeys(),
  };
}

export function webStorageStore(storage: Storage): KeyValueStore {
  return {
    getItem: async (k) => storage.getItem(k),
    setItem: async (k, v) => storage.setItem(k, v),
    removeItem: async (k) => storage.removeItem(k),
    keys: async () => Array.from({ length: storage.length }, (_, i) => storage.key(i)).filter((k): k is string => k !== null),
  };
}

/** The best store this runtime offers. */
export function defaultStore(scope: { OfficeRuntime?: unknown; localStorage?: Storage } = globalThis as never): KeyValueStore {
  const storage = (scope.OfficeRuntime as { storage?: OfficeRuntimeStorageLike } | undefined)?.storage;
  if (storage && typeof storage.getItem === "function" && typeof storage.getKeys === "function") return officeRuntimeStore(storage);
  if (scope.localStorage) return webStorageStore(scope.localStorage);
  return memoryStore();
}

/** A store that forgets everything when the pane closes (no persistent storage available). */
export function memoryStore(): KeyValueStore {
  const map = new Map<string, string>();
  return {
    getItem: async (k) => map.get(k) ?? null,
    setItem: async (k, v) => void map.set(k, v),
    removeItem: async (k) => void map.delete(k),
    keys: async () => [...map.keys()],
  };
}

function isConnection(x: unknown): x is StoredConnection {
  if (typeof x !== "object" || x === null) return false;
  const o = x as Record<string, unknown>;
  return (
    typeof o.baseUrl === "string" &&
    typeof o.credential === "string" &&
    (o.dataUrl === null || typeof o.dataUrl === "string") &&
    (o.deploymentId === null || (typeof o.deploymentId === "number" && Number.isInteger(o.deploymentId)))
  );
}

export class SecretStore {
  constructor(private readonly store: KeyValueStore) {}

  async load(): Promise<StoredConnection | null> {
    const raw = await this.store.getItem(CONNECTION_KEY);
    if (raw === null) return null;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isConnection(parsed)) return parsed;
    } catch {
      // fall through: a corrupt entry is removed below
    }
    await this.store.removeItem(CONNECTION_KEY);
    return null;
  }

  async save(connection: StoredConnection): Promise<void> {
    await this.store.setItem(CONNECTION_KEY, JSON.stringify(connection));
  }

  /** Sign out: remove every key Cellbound ever stored (connection, cached tokens, anything else). */
  async clearAll(): Promise<void> {
    const keys = (await this.store.keys()).filter((k) => k.startsWith(KEY_PREFIX));
    for (const k of keys) await this.store.removeItem(k);
  }
}
