/* doctor_int.h: what the files of the doctor wing (and their unit tests)
 * share; no other wing includes it. */
#ifndef CUDNNVM_DOCTOR_DOCTOR_INT_H
#define CUDNNVM_DOCTOR_DOCTOR_INT_H

#include "doctor/doctor.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- validate.c / doctor.c: proof that a version works ----------------- */

size_t cv_doctor_catalogue_size(void);

#endif
