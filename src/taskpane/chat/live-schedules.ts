// The live SchedulesService: the management client's scheduled-task functions for one deployment,
// and who may manage a task (its creator, an account admin, or an admin of the deployment).
import { cronShapeProblem, type Me, type PlatformClient, type ScheduledTask } from "../../api";
import type { Deployment } from "../types";
import type { ScheduleItem, SchedulesService } from "./schedules-service";

export function createSchedulesService(platform: PlatformClient, deployment: Deployment): SchedulesService {
  let me: Promise<Me> | null = null;
  const who = (signal?: AbortSignal) => (me ??= platform.getMe(signal).catch((e: unknown) => ((me = null), Promise.reject(e))));
  const item = async (t: ScheduledTask, signal?: AbortSignal): Promise<ScheduleItem> => {
    const u = await who(signal);
    const admin = u.isAdmin || u.userPolicies.some((p) => p.deploymentId === deployment.id && p.role === "admin");
    const { userId, ...rest } = t;
    return { ...rest, canManage: userId === u.id || admin };
  };
  return {
    async list(signal) {
      const page = await platform.listScheduledTasks(deployment.id, {}, signal);
      return Promise.all(page.items.map((t) => item(t, signal)));
    },
    create: async (input, signal) => item(await platform.createScheduledTask(deployment.id, input, signal), signal),
    setEnabled: async (id, enabled, signal) => item(await platform.updateScheduledTask(deployment.id, id, { enabled }, signal), signal),
    run: (id, signal) => platform.runScheduledTask(deployment.id, id, signal),
    remove: (id, signal) => platform.deleteScheduledTask(deployment.id, id, signal),
    runs: async (id, signal) => (await platform.listScheduledTaskRuns(deployment.id, id, {}, signal)).items,
    checkCron: cronShapeProblem,
  };
}
