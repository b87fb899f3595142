import { runGroup } from "./select";

runGroup(1, 8);
