/* placeholder: the envelope implementation is being written (see envelope.h) */
#include "envelope.h"
