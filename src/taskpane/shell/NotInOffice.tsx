/** Shown when the pane is opened outside Excel: never a blank page. */
export function NotInOffice() {
  return (
    <main class="cb-not-in-office" aria-labelledby="cb-nio-title">
      <h1 id="cb-nio-title">Cellbound runs inside Excel</h1>
      <p>
        This page is the Cellbound task pane. Open it from Excel (Home tab → <strong>Cellbound</strong>) after sideloading the add-in, or
        try it without Excel in the browser harness: run <code>npm start</code> and open the harness URL it prints.
      </p>
    </main>
  );
}
