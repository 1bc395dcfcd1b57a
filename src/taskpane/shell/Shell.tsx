import { useEffect, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { HostInfo } from "../office-host";
import { NotInOffice } from "./NotInOffice";

export interface ShellProps {
  /** Resolves once Office.js has said where we are. */
  ready: Promise<HostInfo>;
  /** The pane's content once running inside Excel. */
  children: (host: HostInfo) => ComponentChildren;
}

/** Waits for Office, then shows the app inside Excel or a clear message outside it. */
export function Shell({ ready, children }: ShellProps) {
  const [host, setHost] = useState<HostInfo | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void ready.then((info) => live && setHost(info));
    return () => {
      live = false;
    };
  }, [ready]);

  if (!host)
    return (
      <p role="status" class="cb-loading">
        Loading Cellbound…
      </p>
    );
  if (host.host !== "Excel") return <NotInOffice />;
  return <>{children(host)}</>;
}
