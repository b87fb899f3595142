// The refusals hosting shares between its verbs, in the one error model (src/lib/errors.ts).
import { conflict } from "../../lib/errors";

export const domainNotVerified = () => conflict("Verify the domain's ownership record before hosting its MTA-STS policy.", "domain_not_verified");
export const notHosted = () => conflict("MTA-STS hosting is not on for this domain: turn it on first (PUT).");
export const nameTaken = (name: string) => conflict(`Another team already hosts the MTA-STS policy of ${name}.`);
export const enabledMeanwhile = (name: string) =>
  conflict(`MTA-STS hosting of ${name} was turned on by another request at the same moment: read it again, then change it.`);
export const changedMeanwhile = (name: string) =>
  conflict(`The MTA-STS hosting of ${name} was changed by another request meanwhile: read it again, then make your change.`);
