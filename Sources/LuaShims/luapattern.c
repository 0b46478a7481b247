// SPDX-License-Identifier: Apache-2.0 AND MIT
// Lua 5.4 pattern matching for sandboxed states, so that a deadline can stop it:
// string.find, string.match, string.gmatch and string.gsub with the semantics of the Lua 5.4
// reference manual (section 6.4.1), counting their steps and raising "execution time limit
// exceeded" once the state has been killed. The standard library's matcher never returns to
// the VM while it backtracks, so the count hook cannot reach it.
//
// It follows the matcher of Lua 5.4.4's lstrlib.c (match, max_expand, min_expand,
// start_capture, end_capture, match_capture, matchbalance, classEnd, singlematch, the gsub
// and gmatch drivers), restructured and with a step counter added; a change of upstream's
// matcher must be carried here by hand. That code is under Lua's licence, which asks that this
// notice go with it:
//
// Copyright (C) 1994-2022 Lua.org, PUC-Rio.
//
// Permission is hereby granted, free of charge, to any person obtaining a copy of this
// software and associated documentation files (the "Software"), to deal in the Software
// without restriction, including without limitation the rights to use, copy, modify, merge,
// publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
// to whom the Software is furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all copies or
// substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
// INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
// PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE
// FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
// OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
// DEALINGS IN THE SOFTWARE.
#include "luashims.h"
#include "luapattern.h"

#include <ctype.h>
#include <string.h>

#include <lauxlib.h>

#define PAT_ESC '%'
#define PAT_MAXCAPTURES 32
#define PAT_MAXDEPTH 200
#define CAP_UNFINISHED (-1)
#define CAP_POSITION (-2)
/// Steps between two looks at the kill switch.
#define PAT_CHECK_EVERY 1024u

typedef struct {
    const char *src_init, *src_end, *p_end;
    lua_State *L;
    int depth;
    int level;
    unsigned steps;
    struct {
        const char *init;
        ptrdiff_t len;
    } capture[PAT_MAXCAPTURES];
} Matcher;

static void pat_tick(lua_State *L, unsigned *steps, unsigned weight) {
    unsigned before = *steps;
    *steps += weight;
    if (*steps / PAT_CHECK_EVERY != before / PAT_CHECK_EVERY && authsh_killed(L) != AUTHSH_KILL_NONE)
        luaL_error(L, "execution time limit exceeded");
}

static const char *pat_match(Matcher *m, const char *s, const char *p);

/// Where the single-character class starting at p ends.
static const char *class_end(Matcher *m, const char *p) {
    switch (*p++) {
    case PAT_ESC:
        if (p == m->p_end) luaL_error(m->L, "malformed pattern (ends with '%%')");
        return p + 1;
    case '[':
        if (*p == '^') p++;
        do {
            if (p == m->p_end) luaL_error(m->L, "malformed pattern (missing ']')");
            if (*(p++) == PAT_ESC && p < m->p_end) p++;
        } while (*p != ']');
        return p + 1;
    default:
        return p;
    }
}

/// `%a`, `%d`, ... (upper case: the complement); any other character matches itself.
static int class_matches(int c, int cl) {
    int r;
    switch (tolower(cl)) {
    case 'a': r = isalpha(c); break;
    case 'c': r = iscntrl(c); break;
    case 'd': r = isdigit(c); break;
    case 'g': r = isgraph(c); break;
    case 'l': r = islower(c); break;
    case 'p': r = ispunct(c); break;
    case 's': r = isspace(c); break;
    case 'u': r = isupper(c); break;
    case 'w': r = isalnum(c); break;
    case 'x': r = isxdigit(c); break;
    case 'z': r = (c == 0); break;  // deprecated in 5.2, still accepted by 5.4
    default: return cl == c;
    }
    if (isupper(cl)) r = !r;
    return r != 0;
}

/// A set `[...]` from p (at '[') to close (at ']').
static int set_matches(int c, const char *p, const char *close) {
    int found = 1;
    if (*(p + 1) == '^') {
        found = 0;
        p++;
    }
    while (++p < close) {
        if (*p == PAT_ESC) {
            p++;
            if (class_matches(c, (unsigned char)*p)) return found;
        } else if (*(p + 1) == '-' && p + 2 < close) {
            p += 2;
            if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p) return found;
        } else if ((unsigned char)*p == c) {
            return found;
        }
    }
    return !found;
}

static int single_matches(Matcher *m, const char *s, const char *p, const char *ep) {
    if (s >= m->src_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case PAT_ESC: return class_matches(c, (unsigned char)*(p + 1));
    case '[': return set_matches(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *match_balance(Matcher *m, const char *s, const char *p) {
    if (p + 1 >= m->p_end) luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= m->src_end || *s != *p) return NULL;
    int open = *p, close = *(p + 1), depth = 1;
    while (++s < m->src_end) {
        pat_tick(m->L, &m->steps, 1);
        if (*s == close) {
            if (--depth == 0) return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

static const char *max_expand(Matcher *m, const char *s, const char *p, const char *ep) {
    ptrdiff_t n = 0;
    while (single_matches(m, s + n, p, ep)) {
        n++;
        pat_tick(m->L, &m->steps, 1);
    }
    for (; n >= 0; n--) {
        pat_tick(m->L, &m->steps, 1);
        const char *r = pat_match(m, s + n, ep + 1);
        if (r) return r;
    }
    return NULL;
}

static const char *min_expand(Matcher *m, const char *s, const char *p, const char *ep) {
    for (;;) {
        pat_tick(m->L, &m->steps, 1);
        const char *r = pat_match(m, s, ep + 1);
        if (r) return r;
        if (!single_matches(m, s, p, ep)) return NULL;
        s++;
    }
}

static const char *start_capture(Matcher *m, const char *s, const char *p, ptrdiff_t what) {
    if (m->level >= PAT_MAXCAPTURES) luaL_error(m->L, "too many captures");
    m->capture[m->level].init = s;
    m->capture[m->level].len = what;
    m->level++;
    const char *r = pat_match(m, s, p);
    if (!r) m->level--;
    return r;
}

static const char *end_capture(Matcher *m, const char *s, const char *p) {
    int open = -1;
    for (int i = m->level - 1; i >= 0; i--) {
        if (m->capture[i].len == CAP_UNFINISHED) {
            open = i;
            break;
        }
    }
    if (open < 0) luaL_error(m->L, "invalid pattern capture");
    m->capture[open].len = s - m->capture[open].init;
    const char *r = pat_match(m, s, p);
    if (!r) m->capture[open].len = CAP_UNFINISHED;
    return r;
}

static const char *match_backreference(Matcher *m, const char *s, int digit) {
    int i = digit - '1';
    if (i < 0 || i >= m->level || m->capture[i].len == CAP_UNFINISHED)
        luaL_error(m->L, "invalid capture index %%%d", i + 1);
    size_t len = (size_t)m->capture[i].len;
    pat_tick(m->L, &m->steps, 1 + (unsigned)(len >> 6));
    if ((size_t)(m->src_end - s) >= len && memcmp(m->capture[i].init, s, len) == 0) return s + len;
    return NULL;
}

/// Matches pattern p against s; the end of the match, or NULL.
static const char *pat_match(Matcher *m, const char *s, const char *p) {
    if (m->depth-- == 0) luaL_error(m->L, "pattern too complex");
    for (;;) {
        pat_tick(m->L, &m->steps, 1);
        if (p == m->p_end) break;
        if (*p == '(') {
            s = (*(p + 1) == ')') ? start_capture(m, s, p + 2, CAP_POSITION) : start_capture(m, s, p + 1, CAP_UNFINISHED);
            break;
        }
        if (*p == ')') {
            s = end_capture(m, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == m->p_end) {
            if (s != m->src_end) s = NULL;
            break;
        }
        if (*p == PAT_ESC && *(p + 1) == 'b') {
            s = match_balance(m, s, p + 2);
            if (!s) break;
            p += 4;
            continue;
        }
        if (*p == PAT_ESC && *(p + 1) == 'f') {
            p += 2;
            if (*p != '[') luaL_error(m->L, "missing '[' after '%%f' in pattern");
            const char *ep = class_end(m, p);
            int before = (s == m->src_init) ? '\0' : (unsigned char)*(s - 1);
            int here = (s < m->src_end) ? (unsigned char)*s : '\0';
            if (!set_matches(before, p, ep - 1) && set_matches(here, p, ep - 1)) {
                p = ep;
                continue;
            }
            s = NULL;
            break;
        }
        if (*p == PAT_ESC && isdigit((unsigned char)*(p + 1))) {
            s = match_backreference(m, s, (unsigned char)*(p + 1));
            if (!s) break;
            p += 2;
            continue;
        }
        const char *ep = class_end(m, p);
        if (!single_matches(m, s, p, ep)) {
            if (*ep == '*' || *ep == '?' || *ep == '-') {
                p = ep + 1;
                continue;
            }
            s = NULL;
            break;
        }
        if (*ep == '?') {
            const char *r = pat_match(m, s + 1, ep + 1);
            if (r) {
                s = r;
                break;
            }
            p = ep + 1;
            continue;
        }
        if (*ep == '+') {
            s = max_expand(m, s + 1, p, ep);
            break;
        }
        if (*ep == '*') {
            s = max_expand(m, s, p, ep);
            break;
        }
        if (*ep == '-') {
            s = min_expand(m, s, p, ep);
            break;
        }
        s++;
        p = ep;
    }
    m->depth++;
    return s;
}

static void matcher_init(Matcher *m, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    m->L = L;
    m->src_init = s;
    m->src_end = s + ls;
    m->p_end = p + lp;
    m->steps = 0;
}

static void matcher_reset(Matcher *m) {
    m->level = 0;
    m->depth = PAT_MAXDEPTH;
}

/// The length of capture i (whole match for i = 0 without captures); a position capture
/// pushes its integer and returns CAP_POSITION.
static ptrdiff_t capture_of(Matcher *m, int i, const char *s, const char *e, const char **start) {
    if (i >= m->level) {
        if (i != 0) luaL_error(m->L, "invalid capture index %%%d", i + 1);
        *start = s;
        return e - s;
    }
    ptrdiff_t len = m->capture[i].len;
    *start = m->capture[i].init;
    if (len == CAP_UNFINISHED) luaL_error(m->L, "unfinished capture");
    if (len == CAP_POSITION) lua_pushinteger(m->L, (m->capture[i].init - m->src_init) + 1);
    return len;
}

static void push_capture(Matcher *m, int i, const char *s, const char *e) {
    const char *start;
    ptrdiff_t len = capture_of(m, i, s, e, &start);
    if (len != CAP_POSITION) lua_pushlstring(m->L, start, (size_t)len);
}

static int push_captures(Matcher *m, const char *s, const char *e) {
    int n = (m->level == 0 && s) ? 1 : m->level;
    luaL_checkstack(m->L, n, "too many captures");
    for (int i = 0; i < n; i++) push_capture(m, i, s, e);
    return n;
}

/// Lua's rule for a start position: negative counts from the end, 0 and below-start are 1.
static size_t start_position(lua_Integer pos, size_t len) {
    if (pos > 0) return (size_t)pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return len + (size_t)pos + 1;
}

static int has_specials(const char *p, size_t lp) {
    for (size_t i = 0; i < lp; i++) {
        if (strchr("^$*+?.([%-", p[i]) && p[i] != '\0') return 1;
    }
    return 0;
}

static const char *find_plain(lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    if (lp == 0) return s;
    if (lp > ls) return NULL;
    unsigned steps = 0;
    const char *end = s + (ls - lp) + 1;
    while (s < end) {
        const char *hit = memchr(s, *p, (size_t)(end - s));
        if (!hit) return NULL;
        pat_tick(L, &steps, 1 + (unsigned)(lp >> 6));
        if (memcmp(hit + 1, p + 1, lp - 1) == 0) return hit;
        s = hit + 1;
    }
    return NULL;
}

static int find_or_match(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    if (init > ls) {
        lua_pushnil(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
        const char *hit = find_plain(L, s + init, ls - init, p, lp);
        if (hit) {
            lua_pushinteger(L, (hit - s) + 1);
            lua_pushinteger(L, (lua_Integer)((size_t)(hit - s) + lp));
            return 2;
        }
    } else {
        Matcher m;
        const char *from = s + init;
        int anchored = (*p == '^');
        if (anchored) {
            p++;
            lp--;
        }
        matcher_init(&m, L, s, ls, p, lp);
        do {
            matcher_reset(&m);
            const char *e = pat_match(&m, from, p);
            if (e) {
                if (find) {
                    lua_pushinteger(L, (from - s) + 1);
                    lua_pushinteger(L, e - s);
                    return push_captures(&m, NULL, NULL) + 2;
                }
                return push_captures(&m, from, e);
            }
        } while (from++ < m.src_end && !anchored);
    }
    lua_pushnil(L);
    return 1;
}

static int pat_find(lua_State *L) { return find_or_match(L, 1); }
static int pat_match_fn(lua_State *L) { return find_or_match(L, 0); }

typedef struct {
    const char *src, *p, *last;
    Matcher m;
} GMatch;

static int gmatch_next(lua_State *L) {
    GMatch *g = (GMatch *)lua_touserdata(L, lua_upvalueindex(3));
    g->m.L = L;
    for (const char *src = g->src; src <= g->m.src_end; src++) {
        matcher_reset(&g->m);
        const char *e = pat_match(&g->m, src, g->p);
        if (e && e != g->last) {
            g->src = g->last = e;
            return push_captures(&g->m, src, e);
        }
    }
    return 0;
}

static int pat_gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_position(luaL_optinteger(L, 3, 1), ls) - 1;
    lua_settop(L, 2);  // the closure keeps both strings alive
    GMatch *g = (GMatch *)lua_newuserdatauv(L, sizeof(GMatch), 0);
    if (init > ls) init = ls + 1;
    matcher_init(&g->m, L, s, ls, p, lp);
    g->src = s + init;
    g->p = p;
    g->last = NULL;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

static void add_template(Matcher *m, luaL_Buffer *b, const char *s, const char *e) {
    lua_State *L = m->L;
    size_t l;
    const char *t = lua_tolstring(L, 3, &l);
    const char *esc;
    while ((esc = memchr(t, PAT_ESC, l)) != NULL) {
        luaL_addlstring(b, t, (size_t)(esc - t));
        esc++;
        if (*esc == PAT_ESC) {
            luaL_addchar(b, *esc);
        } else if (*esc == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)*esc)) {
            const char *start;
            ptrdiff_t len = capture_of(m, *esc - '1', s, e, &start);
            if (len == CAP_POSITION) luaL_addvalue(b);
            else luaL_addlstring(b, start, (size_t)len);
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", PAT_ESC);
        }
        l -= (size_t)(esc + 1 - t);
        t = esc + 1;
    }
    luaL_addlstring(b, t, l);
}

/// Adds the replacement of match s..e; returns whether the text changed.
static int add_replacement(Matcher *m, luaL_Buffer *b, const char *s, const char *e, int kind) {
    lua_State *L = m->L;
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int n = push_captures(m, s, e);
        lua_call(L, n, 1);
    } else if (kind == LUA_TTABLE) {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_template(m, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1))
        return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int pat_gsub(lua_State *L) {
    size_t ls, lp;
    const char *src = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *last = NULL;
    int kind = lua_type(L, 3);
    lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    int anchored = (*p == '^');
    lua_Integer n = 0;
    int changed = 0;
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE, 3,
                     "string/function/table");
    Matcher m;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (anchored) {
        p++;
        lp--;
    }
    matcher_init(&m, L, src, ls, p, lp);
    while (n < max) {
        matcher_reset(&m);
        const char *e = pat_match(&m, src, p);
        if (e && e != last) {
            n++;
            changed = add_replacement(&m, &b, src, e, kind) | changed;
            src = last = e;
        } else if (src < m.src_end) {
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchored) break;
    }
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, src, (size_t)(m.src_end - src));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

void authsh_open_patterns(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"find", pat_find}, {"match", pat_match_fn}, {"gmatch", pat_gmatch}, {"gsub", pat_gsub}, {NULL, NULL}};
    luaL_setfuncs(L, functions, 0);
}
