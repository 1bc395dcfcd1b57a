// The busy line: an action still running after a while says Excel may be waiting for the person to
// finish editing a cell (every batch runs with delayForCellEdit, issue 22), never "Something went wrong".
import { render } from "preact";
import { BusyLine } from "../../src/taskpane/app/BusyLine.tsx";

describe("BusyLine", () => {
  it("shows the cell-edit hint only once an action has run for a while", async () => {
    const root = document.createElement("div");
    document.body.append(root);
    render(<BusyLine busy={{ label: "Refreshing…" }} hintAfterMs={40} />, root);
    expect(root.querySelector("[data-testid=cell-edit-hint]")).toBeNull();
    await new Promise((r) => setTimeout(r, 120));
    expect(root.querySelector("[data-testid=cell-edit-hint]")?.textContent).toMatch(/typing in a cell.*Enter or Esc/);
    render(<BusyLine busy={{ label: "Placing…" }} hintAfterMs={40} />, root); // a new action starts without it
    expect(root.querySelector("[data-testid=cell-edit-hint]")).toBeNull();
    render(null, root);
    root.remove();
  });
});
