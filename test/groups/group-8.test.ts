import { runGroup } from "./select";

runGroup(7, 8);
