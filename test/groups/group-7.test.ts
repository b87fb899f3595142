import { runGroup } from "./select";

runGroup(6, 8);
