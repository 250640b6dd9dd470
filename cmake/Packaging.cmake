# Packages of an install tree: the CMake package config (find_package(syncwatch)) and a
# Debian package (cpack -G DEB). docs/install.md shows both in use.
include(CMakePackageConfigHelpers)

set(SYNCWATCH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/syncwatch")
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/syncwatchConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/syncwatchConfig.cmake"
  INSTALL_DESTINATION "${SYNCWATCH_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/syncwatchConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/syncwatchConfig.cmake"
              "${PROJECT_BINARY_DIR}/syncwatchConfigVersion.cmake"
        DESTINATION "${SYNCWATCH_INSTALL_CMAKEDIR}")

# The .deb. The analyzer links Debian's LLVM 22 shared libraries and uses clang's resource
# directory (cuda_wrappers, from libclang-common-22-dev); the plugin runs in clang-tidy-22.
# CUPTI comes with CUDA 13 (NVIDIA's packages or runfile, not Debian's), so it is only
# recommended: the analyzer works without it. libelf gives release-build call sites.
set(CPACK_PACKAGE_NAME "syncwatch")
set(CPACK_PACKAGE_VENDOR "syncwatch")
set(CPACK_PACKAGE_CONTACT "syncwatch developers <syncwatch@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "finds implicit synchronization in CUDA programs and measures what it costs")
set(CPACK_PACKAGE_DESCRIPTION "syncwatch-lint and a clang-tidy plugin flag CUDA calls that serialize streams or block the host. libsyncwatch.so (LD_PRELOAD, CUPTI) confirms at run time which of them did, for how long, and at which source line.")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "amd64")
# The project has no public home yet: a fork that publishes packages names its own.
set(SYNCWATCH_HOMEPAGE "" CACHE STRING "Homepage field of the .deb (empty: none)")
if(SYNCWATCH_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${SYNCWATCH_HOMEPAGE}")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1")
if(SYNCWATCH_BUILD_ANALYZER)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS
         ", libllvm22, libclang-cpp22, libclang-common-22-dev")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-tidy-22")
endif()
if(TARGET syncwatch_interposer)
  if(CPACK_DEBIAN_PACKAGE_RECOMMENDS)
    string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", ")
  endif()
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS "libelf1, cuda-cupti-13-0 | cuda-toolkit-13-0")
endif()
set(CPACK_GENERATOR "DEB")
include(CPack)
