import { runGroup } from "./select";

runGroup(4, 8);
