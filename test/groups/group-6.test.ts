import { runGroup } from "./select";

runGroup(5, 8);
