// check runs one named check of a client script, printing "ok" or "FAIL"
// with the reason; failures lists the names (or reasons) of those that
// failed, for the script's exit status.
export const failures = [];

export async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (err) {
    failures.push(name);
    console.log(`FAIL ${name}: ${err.message}`);
  }
}
