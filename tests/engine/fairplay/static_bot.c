#include <stdio.h>
#include <string.h>
/* Replies "ready" to hello, and the first legal action to every act (cards/bids are strings). */
int main(void) {
  static char line[1 << 16];
  while (fgets(line, sizeof line, stdin)) {
    int id = 0; char *p = strstr(line, "\"id\":"); if (p) sscanf(p + 5, "%d", &id);
    if (strstr(line, "\"type\":\"hello\"")) { printf("{\"id\":0,\"type\":\"ready\"}\n"); fflush(stdout); }
    else if (strstr(line, "\"type\":\"act\"")) {
      char *l = strstr(line, "\"legal\":[");
      if (strstr(line, "\"decision\":\"discard\"")) { /* not in official rules */ }
      l += 9; char first[64] = {0};
      if (*l == '"') { char *e = strchr(l + 1, '"'); memcpy(first, l, e - l + 1); }
      else { char *e = l; int depth = 0; do { if (*e=='{') depth++; if (*e=='}') depth--; e++; } while (depth > 0); memcpy(first, l, e - l); }
      printf("{\"id\":%d,\"action\":%s}\n", id, first); fflush(stdout);
    } else if (strstr(line, "match_end")) break;
  }
  return 0;
}
