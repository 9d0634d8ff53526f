/* A test helper for locale.sh, preloaded into the gate: it does what the
 * gate must never do, take its locale from the environment, so that the
 * test can show its comparison would catch a gate that did. */
#include <locale.h>

__attribute__((constructor)) static void ng_shim_take_locale(void)
{
    setlocale(LC_ALL, "");
}
