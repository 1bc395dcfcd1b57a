import { render } from "preact";
import { waitForOffice } from "./office-host";
import { Shell } from "./shell/Shell";

const root = document.getElementById("root");
if (!root) throw new Error("taskpane.html has no #root element");
root.textContent = "";
render(
  <Shell ready={waitForOffice()}>
    {(host) => (
      <main>
        <h1>Cellbound</h1>
        <p>Running in {host.host} ({host.platform ?? "unknown platform"}).</p>
      </main>
    )}
  </Shell>,
  root,
);
