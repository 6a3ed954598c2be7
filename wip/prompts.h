/* linattn.h section under development: prompts. Included twice by linattn.h:
   once with LA__PART_API defined (declarations, inside the include guard and
   extern "C"), once with LA__PART_IMPL (implementation). */
#if defined(LA__PART_API)

#elif defined(LA__PART_IMPL)

#endif
