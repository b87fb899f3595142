import { runGroup } from "./select";

runGroup(0, 8);
