// The one way to a domain's report object (docs/decisions.md D121): its id derives from the domain's
// id, and the caller passes the domain row it already loaded within the team (or by report token),
// so input never names an object and another team's domain id never reaches one. No I/O itself.
import type { Services } from "../../services";

export const domainStore = (svc: Pick<Services, "env">, domain: { id: number }) => svc.env.DOMAIN_STORE.getByName(`domain:${domain.id}`);
