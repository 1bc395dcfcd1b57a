// The API clients the sync benchmarks use against the platform stand-in (its own process, spawnPlatform):
// the admin's management client, and a data client whose answers (SQL and /v1/load) report how long each took.
import type { SpawnedPlatform } from "../dev/platform/spawn.ts";
import { createDataClient, createDeploymentTokenManager, createPlatformClient, type DataClient } from "../src/api/index.ts";

export function standInClients(platform: Pick<SpawnedPlatform, "info">, onAnswer: (ms: number) => void = () => undefined) {
  const deploymentId = platform.info.deployments[0]!.id;
  const client = createPlatformClient({ baseUrl: platform.info.baseUrl, credential: platform.info.apiKeys.admin });
  const inner = createDataClient({
    dataUrl: platform.info.dataUrl,
    token: createDeploymentTokenManager({ client, deploymentId }),
    retry: { maxElapsedMs: 600_000 },
  });
  const data: Pick<DataClient, "fetchLoad" | "fetchSql"> = {
    async fetchLoad(q, s) {
      const t = performance.now();
      try {
        return await inner.fetchLoad(q, s);
      } finally {
        onAnswer(performance.now() - t);
      }
    },
    async fetchSql(text, o, s) {
      const t = performance.now();
      try {
        return await inner.fetchSql(text, o, s);
      } finally {
        onAnswer(performance.now() - t);
      }
    },
  };
  return { deploymentId, client, data };
}
