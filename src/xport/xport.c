#include "fy_xport.h"

fy_xport_deliver_fn fy_xport_deliver;
