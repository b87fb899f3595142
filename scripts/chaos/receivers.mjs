export async function runReceiverChaos() {}
