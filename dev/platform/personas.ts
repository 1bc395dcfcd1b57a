// The stand-in's account, deployments and personas (docs/API.md §Access model).
//   admin:    admin role everywhere — everything;
//   analyst:  editor in deployment 1 only — creates and edits own reports, reads shared ones;
//   viewer:   viewer in both deployments — reads shared reports, cannot write;
//   outsider: editor in both deployments — owns private reports the analyst cannot read.
import type { DeploymentRole } from "../../src/api/schemas/management";

export const ACCOUNT_NAME = "cellbound-dev";

export interface DeploymentDef {
  id: number;
  name: string;
}
export const DEPLOYMENTS: DeploymentDef[] = [
  { id: 1, name: "Sales Analytics" },
  { id: 2, name: "Finance Sandbox" },
];

export type PersonaName = "admin" | "analyst" | "viewer" | "outsider";

export interface User {
  id: number;
  persona: PersonaName;
  email: string;
  firstName: string;
  lastName: string;
  picture: string;
  isAdmin: boolean;
  roles: Record<number, DeploymentRole>;
}

export const USERS: User[] = [
  {
    id: 1,
    persona: "admin",
    email: "ada.admin@cellbound.test",
    firstName: "Ada",
    lastName: "Admin",
    picture: "",
    isAdmin: true,
    roles: { 1: "admin", 2: "admin" },
  },
  {
    id: 2,
    persona: "analyst",
    email: "ana.analyst@cellbound.test",
    firstName: "Ana",
    lastName: "Analyst",
    picture: "",
    isAdmin: false,
    roles: { 1: "editor" },
  },
  {
    id: 3,
    persona: "viewer",
    email: "vic.viewer@cellbound.test",
    firstName: "Vic",
    lastName: "Viewer",
    picture: "",
    isAdmin: false,
    roles: { 1: "viewer", 2: "viewer" },
  },
  {
    id: 4,
    persona: "outsider",
    email: "oscar.outsider@cellbound.test",
    firstName: "Oscar",
    lastName: "Outsider",
    picture: "",
    isAdmin: false,
    roles: { 1: "editor", 2: "editor" },
  },
];

export const userById = (id: number): User | undefined => USERS.find((u) => u.id === id);
export const fullName = (u: User) => `${u.firstName} ${u.lastName}`;
