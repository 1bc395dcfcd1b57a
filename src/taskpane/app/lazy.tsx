// On-demand views: the report builder and the diagnostics are split into their own chunks so the
// initial task-pane JS stays small. Shows progress while loading and a message if loading fails.
import { useEffect, useState } from "preact/hooks";
import type { ComponentType } from "preact";
import { describeError } from "../errors";
import { NoticeBox, ProgressLine } from "../ui/Notice";

export function Lazy<P extends object>({ load, props, label }: { load: () => Promise<ComponentType<P>>; props: P; label: string }) {
  const [C, setC] = useState<ComponentType<P> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    load().then(
      (c) => live && setC(() => c),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [load]);
  if (error) return <NoticeBox notice={{ tone: "error", ...describeError(error), title: `Could not load ${label}` }} />;
  if (!C) return <ProgressLine label={`Loading ${label}…`} />;
  return <C {...props} />;
}
