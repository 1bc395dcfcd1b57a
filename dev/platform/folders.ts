// Folder paths by folder id. The stand-in has no folder resource; a report carries folderId, and its
// view adds folderPath (seeds 01 §2: "folderPath: array of {id, name}") from this table.
export const FOLDER_PATHS: Record<number, { id: number; name: string }[]> = {
  1: [{ id: 1, name: "Sales" }],
  2: [{ id: 2, name: "Customers" }],
  3: [{ id: 3, name: "Operations" }],
  9: [{ id: 9, name: "Test fixtures (edge cases)" }],
};
