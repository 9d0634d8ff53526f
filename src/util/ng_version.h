/* ng_version: the tool's name and version, one place for every output. */
#ifndef NG_VERSION_H
#define NG_VERSION_H

#define NG_TOOL_NAME "nsys-gate"
#ifndef NG_VERSION
#define NG_VERSION "0.1.0"
#endif
#define NG_SCHEMA_VERSION 1

#endif
