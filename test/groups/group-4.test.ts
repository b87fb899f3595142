import { runGroup } from "./select";

runGroup(3, 8);
