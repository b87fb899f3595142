export async function runDnsFaults() {}
