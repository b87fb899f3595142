import { runGroup } from "./select";

runGroup(2, 8);
