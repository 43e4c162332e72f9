# deploy/: the systemd units (systemd-analyze verify and security, the programs traced
# against their filters), the Slurm batch scripts (under stand-in srun/scontrol, and on
# a real one-node Slurm: a real perft answer in the output file) and the Kubernetes
# manifests (an offline schema check). Scripts in tests/deploy/.
# A sanitizer's runtime makes system calls of its own: the trace is of release builds only.
add_test(NAME deploy_systemd COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/deploy/systemd.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} "${PLY_SANITIZER}")
set_tests_properties(deploy_systemd PROPERTIES TIMEOUT 120 LABELS "quick;net" SKIP_RETURN_CODE 77)
add_test(NAME deploy_slurm COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/deploy/slurm.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(deploy_slurm PROPERTIES TIMEOUT 180 LABELS "quick;net" SKIP_RETURN_CODE 77)
add_test(NAME deploy_kubernetes COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/deploy/kubernetes.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(deploy_kubernetes PROPERTIES TIMEOUT 120 LABELS quick SKIP_RETURN_CODE 77)
# A real one-node Slurm (slurmctld, slurmd, munged started and stopped by the test, as
# root): label slurm, not in the sanitizer runs; exit 77 where Slurm cannot start.
add_test(NAME deploy_slurm_real COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/deploy/slurm_real.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(deploy_slurm_real PROPERTIES TIMEOUT 300 LABELS slurm SKIP_RETURN_CODE 77)
# deploy/local-cluster.sh installed and with the programs on PATH: found, said, workers
# started once the coordinator listens, perft(3) = 8902 through it.
add_test(NAME deploy_local_cluster COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/deploy/local_cluster.sh
  ${PROJECT_SOURCE_DIR} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(deploy_local_cluster PROPERTIES TIMEOUT 120 LABELS "quick;net")
